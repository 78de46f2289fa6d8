"""structfirst.eval."""
