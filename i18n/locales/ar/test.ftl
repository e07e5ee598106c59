test-greeting = Hello { $name }
