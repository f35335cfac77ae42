"""``python -m service.cli``: the ``tongiaki`` command line, as the console script runs it."""

from service.cli import main

if __name__ == "__main__":
    main()
