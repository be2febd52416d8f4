"""Qube! requirement expressions: read (syntax), evaluated (evaluate), translated to ClassAd (translate)."""
