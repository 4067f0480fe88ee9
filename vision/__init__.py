"""Vision: read seed counts from a camera over a real wooden board.

The package is laid out by role; a camera frame goes through the first three in order:

* :mod:`vision.capture` – frames in, observations out: the camera source
  (``camera://N``, network streams, ``video://file``) behind the Source interface the live
  service uses (:mod:`~vision.capture.source`), hands and motion over each pit
  (:mod:`~vision.capture.motion`), one frame → :class:`core.observation.Observation`
  (:mod:`~vision.capture.pipeline`), and whether the counts are sure enough to referee
  with (:mod:`~vision.capture.count_health`);
* :mod:`vision.geometry` – where the board is: found by ArUco markers or the 2 × 6 pit
  grid (:mod:`~vision.geometry.locate`), its corners saved as JSON and one crop per pit
  (:mod:`~vision.geometry.calibration`), which cell is which pit
  (:mod:`~vision.geometry.layout`);
* :mod:`vision.counting` – one belief over 0 … 48 seeds per pit crop: the registry names
  every counter kind and the default (``deep``) and says how to add one; each kind is a
  module of its own (``area``, ``head``, ``deep``, ``cnn``, ``mlp``), what they share is
  :mod:`~vision.counting.beliefs`;
* :mod:`vision.learning` – teaching the counter a board: the calibration's layouts and
  step, the learner that adapts it from the positions the referee confirms, the album of
  labelled pit photos, and the training of the built-in networks;
* :mod:`vision.render` – data the package makes for itself: boards, pits, hands and game
  videos painted with exact labels (:mod:`~vision.render.synth`), seeds dropped by a
  physics engine (:mod:`~vision.render.physics_piles`) and lit by a path tracer
  (:mod:`~vision.render.path_traced`);
* :mod:`vision.evaluation` – what the benchmarks measure with (``python -m bench.vision``):
  labelled folders (``<count>/<image>.png``), the new-board protocol, games read from a
  counter's beliefs, belief scores.

:mod:`vision.image_types` holds the picture types every module shares; the built-in
networks' weights are in ``vision/models/``.
"""
