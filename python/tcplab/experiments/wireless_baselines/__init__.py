"""The ``wireless-baselines`` experiment, one module per concern:

* ``experiment.py`` — the interface the registry reads (NAME, TITLE, PUBLISHED, sweeps, analyse, figures, notes);
* ``schemes.py`` — every wireless TCP scheme of tcplab, each as the scenario fields that switch it on;
* ``scenario.py`` — the wired–BS–802.11 network of seeds 000/001 and the two families of cells;
* ``findings.py`` — orderings from the literature, each decided by a stated rule on paired replications;
* ``claims.py`` — the sentences those orderings come from and how each is checked.

This file stays empty so that ``from tcplab.experiments.wireless_baselines import findings`` names the
module, never a function of the same name.
"""
