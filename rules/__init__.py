"""The lint rules (one YAML file per family), shipped as ``condorcfg.rules``."""
