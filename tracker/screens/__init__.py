"""One Screen or ModalScreen per file, named after what the player sees."""
