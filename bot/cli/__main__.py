"""``python -m bot.cli``: the same as the ``paperbot`` command."""

from bot.cli.main import main

main()
