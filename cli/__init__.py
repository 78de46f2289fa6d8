"""structfirst.cli."""
