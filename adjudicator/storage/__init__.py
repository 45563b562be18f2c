"""Storage: SQLModel tables and the functions that read and write them."""
