"""Learning a board: the calibration's layouts (:mod:`vision.learning.layouts`).

The calibration step itself and the learner that adapts the counter during play live in
:mod:`vision.calibrate`; the album of labelled pit photos in :mod:`vision.pit_album`.
"""
