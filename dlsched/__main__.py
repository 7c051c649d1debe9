"""``python -m dlsched`` is the ``dlsched`` command."""

from dlsched.cli import main

raise SystemExit(main())
