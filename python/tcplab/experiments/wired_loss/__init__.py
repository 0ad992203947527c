"""The ``wired-loss`` experiment, one module per concern:

* ``experiment.py`` — the interface the registry reads (NAME, TITLE, PUBLISHED, sweeps, analyse, figures, notes, causes);

The registry (``tcplab.experiments``) loads ``experiment``; the shared records and helpers are in
``tcplab.experiments.base``.  This file stays empty so that ``from tcplab.experiments.<paper> import
findings`` names the module, never a function of the same name.
"""
