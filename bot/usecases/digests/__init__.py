"""The digest pipeline: choose a person's papers, send them once, run every due
digest, and when each is due."""
