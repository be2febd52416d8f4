"""HTCondor's ``use CATEGORY : Name`` templates as config files, shipped as ``condorcfg.templates``."""
