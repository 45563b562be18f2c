"""Pure values and helpers shared by every game: no I/O, no clock, no global random."""
