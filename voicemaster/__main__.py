"""`python -m voicemaster`: the same as the `voicemaster` command."""

import sys

from voicemaster.cli.app import main

sys.exit(main())
