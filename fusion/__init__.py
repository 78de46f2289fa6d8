"""structfirst.fusion."""
