"""Pictures of game positions: text diagrams for plain-text mail, SVG for HTML and the archive.

Pure functions from public state to text; no I/O."""
