"""Provider adapters over the official SDKs (anthropic, openai, google-genai) and the factory choosing them."""
