"""Every prompt dualmem sends to a model, versioned with the code (a change shows in review)."""
