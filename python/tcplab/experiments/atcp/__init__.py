"""The ``atcp`` experiment, one module per concern:

* ``experiment.py`` — the interface the registry reads (NAME, TITLE, PUBLISHED, sweeps, analyse, figures, notes, causes);
* ``findings.py`` — the paper's claims as findings under stated rules;
* ``scenario.py`` — the network and the senders;
* ``figures.py`` — the figures;
* ``causes.py`` — the switch behind each Table 2 deviation (static losses, walking losses, time out of range);
* ``claims.py`` — every quantitative or comparative sentence of the paper's text and how it is checked;

The registry (``tcplab.experiments``) loads ``experiment``; the shared records and helpers are in
``tcplab.experiments.base``.  This file stays empty so that ``from tcplab.experiments.<paper> import
findings`` names the module, never a function of the same name.
"""
