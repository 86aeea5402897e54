"""What is compared: two systems, a family, several runs per system (thin entry points
over :mod:`pairboot.core.pipeline`)."""
