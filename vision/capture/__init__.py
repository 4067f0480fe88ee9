"""Capture: camera frames in, observations of the board out.

* :mod:`vision.capture.source`: the camera source (``camera://N``, network streams,
  ``video://file``), reconnecting, behind the Source interface the live service uses;
* :mod:`vision.capture.pipeline`: one frame → rectified pits → hands → counts →
  :class:`core.observation.Observation`;
* :mod:`vision.capture.motion`: hands and motion over each pit (covered pits read ``None``);
* :mod:`vision.capture.count_health`: whether the counts are sure enough for the referee
  to follow a game, and what to tell the user when they are not.
"""
