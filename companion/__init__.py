"""The oware-companion application: command line, sources, session wiring, persistence.

Everything that touches the outside world (files, serial ports, cameras,
HTTP) lives here or in the source packages; the rules and the referee live
in :mod:`core`. :mod:`companion.sources` opens a source from its URL (one
module per scheme).
"""

__version__ = "0.1.0"
