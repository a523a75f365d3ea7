"""The ``paperbot`` command line, its terminal output and the demo."""
