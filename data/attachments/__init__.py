"""Attachment files: content-addressed storage, intake (type checks) and what each provider is sent."""
