"""structfirst.calibration."""
