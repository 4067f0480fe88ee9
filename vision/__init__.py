"""Vision: read seed counts from a camera over a real wooden board.

A camera frame goes through these modules, in this order:

* :mod:`vision.source` – capture (``camera://N``, network streams, ``video://file``),
  reconnecting, and the Source interface the live service uses;
* :mod:`vision.locate` – find the board (ArUco markers, else the 2 × 6 pit grid);
  :mod:`vision.calibration` – the corners saved as JSON, rectification, one crop per pit
  (:mod:`vision.layout` says which cell is which pit);
* :mod:`vision.motion` – hands and motion: covered pits read ``None``, ``stable`` flag;
* counting, one belief over 0 … 48 seeds per pit: :mod:`vision.counting` names every
  counter kind and the default, and says how to add one;
  :mod:`vision.counting.head` (the rendered network's features, a head fitted on the
  calibration's photos in seconds),
  :mod:`vision.area` (seed area against the empty pit, the calibrated default),
  :mod:`vision.deep_counter` (seven-layer networks, :mod:`vision.deep_net`, trained with
  PyTorch by :mod:`vision.deep_train`, run in numpy; the most accurate on real photographs
  once fine-tuned on the user's board), :mod:`vision.net_counter` (small numpy networks,
  :mod:`vision.cnn`), both ensembles of :mod:`vision.ensemble`, or
  :mod:`vision.counter` (hand-made features + a small MLP, :mod:`vision.features` +
  :mod:`vision.model`; also home of the belief shaping every counter shares);
* :mod:`vision.pipeline` – all of the above per frame → :class:`core.observation.Observation`;
* :mod:`vision.calibrate` – the user's calibration step and learning from the game;
  :mod:`vision.learning.layouts` – the calibration's layouts, their picture and check.

Data the package makes for itself: :mod:`vision.render.physics_piles` drops seeds into
pits with a physics engine and photographs them, :mod:`vision.render.path_traced` lights
those piles with a path tracer; :mod:`vision.synth` renders boards, pits, hands and
whole game videos with exact labels (:mod:`vision.synth_game`); :mod:`vision.train`
trains the built-in counters (MLP and networks) on them; :mod:`vision.dataset` reads
labelled folders (``<count>/<image>.png``) for the benchmark, ``python -m bench.vision``, and
:mod:`vision.evaluation.new_board` is its new-board protocol.
:mod:`vision.seed_paste` makes taller piles out of the user's own photographs (seeds cut
from one-seed crops, pasted onto others) for the deep network's fine-tuning.
"""
