"""structfirst.rules."""
