"""``python -m arrayd``: the operator's command line (arrayd._admin)."""
import sys

from arrayd._admin import main

if __name__ == "__main__":
    sys.exit(main())
