"""dualmem's Editor as a Dagster code location: a thin layer over ``dualmem_core``."""
