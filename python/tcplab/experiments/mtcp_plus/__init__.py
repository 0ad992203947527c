"""The ``mtcp-plus`` experiment, one module per concern:

* ``experiment.py`` — the interface the registry reads (NAME, TITLE, PUBLISHED, sweeps, analyse, figures, notes, causes);
* ``findings.py`` — the paper's claims as findings under stated rules;
* ``sensitivity.py`` — sweeps of the settings the paper leaves open;
* ``causes.py`` — the switches behind Tables 4 and 6 (receive window, congestion load) and the note written from them;
* ``claims.py`` — every quantitative or comparative sentence of the paper's text and how it is checked;

The registry (``tcplab.experiments``) loads ``experiment``; the shared records and helpers are in
``tcplab.experiments.base``.  This file stays empty so that ``from tcplab.experiments.<paper> import
findings`` names the module, never a function of the same name.
"""
