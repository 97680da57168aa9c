"""Widgets of the Kismet client: drawings (art), the status line, the chat line."""
