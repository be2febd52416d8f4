from condorcfg.cli import entry

entry()
