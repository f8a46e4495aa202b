"""The seasalt command line."""
