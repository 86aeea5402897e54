"""Planning an evaluation before it runs: how many items, groups and runs it takes."""
