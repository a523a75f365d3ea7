"""Fault and fuzz suite: the probe of issue 9 kept as tests (bounded; a few minutes in all)."""
