"""Host side of the sensor board: wire protocol, serial link, weight→count model, virtual board.

The pieces, in the order the bytes flow through them:

* :mod:`firmware_bridge.protocol` — frames, CRC, message types, a decoder that
  survives garbage and a tracker for loss, duplicates and device resets.
* :mod:`firmware_bridge.link` — a pyserial connection that reconnects with
  backoff and reports its state; :mod:`firmware_bridge.discovery` finds the
  board for ``serial://auto``.
* :mod:`firmware_bridge.weights` — calibration (tare, scale, seed weight) and
  the model that turns grams into a probability vector over seed counts, plus
  the stability detector; :mod:`firmware_bridge.observer` turns the 80 Hz
  stream into the few Observations the referee needs.
* :mod:`firmware_bridge.virtual_board` — a pure-Python device that plays a game
  seed by seed and speaks the same protocol on a pseudo-terminal (``sim://``).
* :mod:`firmware_bridge.source` — the sources (:class:`core.source.Source`) the
  live service reads for ``sim://`` and ``serial://`` URLs (opened by
  ``companion.sources.open_source(url)``).
* :mod:`firmware_bridge.calibration_wizard` — the terminal calibration
  (``oware-companion calibrate --source serial://auto``).
* :mod:`firmware_bridge.simavr_harness` — builds the real firmware and runs it
  in simavr (``hardware/simavr``) for the tests and the benchmark.

It imports :mod:`core` and pyserial, nothing from the dashboard or vision.
"""
