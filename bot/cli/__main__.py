"""``python -m bot.cli``: the same as the ``paperbot`` command."""

from bot.cli.main import main

if __name__ == "__main__":  # not again in a helper process, which imports the main module
    main()
