"""structfirst.engine."""
