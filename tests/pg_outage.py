"""Taking a test's PostgreSQL database away and bringing it back, as a restart or a failover
would, on the real server."""

from __future__ import annotations

from sqlalchemy import create_engine, text


class Outage:
    """Takes the test's database away (no new connections, every open one ended) and brings it
    back, from the server's admin database."""

    def __init__(self, admin_url: str, database: str) -> None:
        self.admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        self.database = database
        self.away = False

    def take_away(self) -> None:
        with self.admin.connect() as connection:
            connection.execute(text(f'ALTER DATABASE "{self.database}" ALLOW_CONNECTIONS false'))
            connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": self.database},
            )
        self.away = True

    def bring_back(self) -> None:
        with self.admin.connect() as connection:
            connection.execute(text(f'ALTER DATABASE "{self.database}" ALLOW_CONNECTIONS true'))
        self.away = False
