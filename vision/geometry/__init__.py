"""Board geometry: where the board and each pit are in a camera frame.

* :mod:`vision.geometry.locate`: find the board (ArUco markers, else the 2 × 6 pit grid);
* :mod:`vision.geometry.calibration`: the corners saved as JSON, rectification, one crop
  per pit;
* :mod:`vision.geometry.layout`: which cell of the rectified board is which pit.
"""
