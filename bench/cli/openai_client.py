"""openai-python, as the bench's peer: one streamed chat completion, each
delta written to stdout as it comes. Usage: openai_client.py BASE_URL TEXT"""

import sys

from openai import OpenAI


def main():
    base_url, text = sys.argv[1], sys.argv[2]
    client = OpenAI(base_url=base_url, api_key="bench")
    stream = client.chat.completions.create(
        model="bench", messages=[{"role": "user", "content": text}], stream=True
    )
    out = sys.stdout
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            out.write(chunk.choices[0].delta.content)
            out.flush()
    out.write("\n")


if __name__ == "__main__":
    main()
