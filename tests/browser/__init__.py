"""Helpers for the browser tests: headless Chromium driven over the DevTools protocol."""
