//! Reporters: terminal, JSON, JUnit and Markdown writers over one result model.
