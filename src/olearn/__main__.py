"""``python -m olearn``: the olearn command line."""

from olearn.cli import main

if __name__ == "__main__":
    main()
