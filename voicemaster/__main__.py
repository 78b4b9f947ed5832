"""`python -m voicemaster`: the same as the `voicemaster` command."""

import sys

from voicemaster.cli import main

sys.exit(main())
