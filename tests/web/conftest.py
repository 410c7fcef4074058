"""The web search tests build SDK adapters of their own and rarely close them: each one's aiohttp session is
closed as the test ends (see tests.aiohttp_sessions.sdk_clients_closed_on_their_loop)."""

from tests.aiohttp_sessions import sdk_clients_closed_on_their_loop  # noqa: F401  (an autouse fixture)
