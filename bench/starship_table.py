"""Write the Starship Combat equilibrium table shipped with the package
(``adjudicator/games/starship_combat/equilibrium.txt``, see its ``standin`` module): every
position the standard start leads to, built from nothing, and the time that took.

Usage: ``.venv/bin/python bench/starship_table.py [--check]``; with ``--check`` the file is
compared, not written (``tests/games/test_starship_combat_standin.py`` does the same).
"""

from __future__ import annotations

import argparse
import time
from importlib import resources

from adjudicator.games.starship_combat import standin


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    standin.SOLVED.clear()
    start = time.process_time()
    standin.solve(standin.START_POSITION, shipped=False)
    spent = time.process_time() - start
    text = standin.format_table({pos: s.value for pos, s in standin.SOLVED.items()})
    target = resources.files(standin.__package__).joinpath(standin.TABLE)
    print(f"{len(standin.SOLVED)} positions built in {spent:.2f} s CPU, {len(text)} bytes")
    if args.check:
        same = target.read_text(encoding="ascii") == text
        print("the shipped table is", "the same" if same else "DIFFERENT")
        raise SystemExit(0 if same else 1)
    with resources.as_file(target) as path:
        path.write_text(text, encoding="ascii")
    print(f"written: {target}")


if __name__ == "__main__":
    main()
