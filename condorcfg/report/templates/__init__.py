"""Jinja2 templates of the reports (a package so the templates install as package data)."""
