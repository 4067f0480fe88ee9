"""Learning a board: from the calibration's photographs, and from the games it follows.

* :mod:`vision.learning.layouts`: the calibration's layouts (where the user puts how many
  seeds), their picture and the check of a photo;
* :mod:`vision.learning.calibrate`: the user's calibration step, and the learner that
  adapts the counter from the positions the referee confirms;
* :mod:`vision.learning.pit_album`: the game's labelled pit photos, kept for
  ``train-counter``;
* :mod:`vision.learning.seed_paste`: taller piles made from the user's own photographs,
  for the fine-tuning;
* :mod:`vision.learning.train` and :mod:`vision.learning.deep_train`: training the
  built-in counters on rendered pits (the networks' PyTorch training).
"""
