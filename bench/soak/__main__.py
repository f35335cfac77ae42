"""``python -m bench.soak --minutes N`` (or ``python bench/soak --minutes N``): the
soak that bench/soak/__init__.py describes."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a directory too

from bench.soak.run import main

sys.exit(main())
