"""The conversation loop's parts: choosing the model, composing the prompt, streaming a round, running tools."""
