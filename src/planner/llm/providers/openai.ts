/**
 * OpenAI-compatible Chat Completions through the official `openai` SDK: OpenAI itself, and
 * at a base URL Ollama, vLLM, llama.cpp's server, Groq, DeepSeek, Mistral, xAI. Tools are
 * `function` tools; results go back as `tool` messages, one per call.
 */
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { Completion, CompletionRequest, Provider, ProviderOptions, Turn } from './provider.js';

/** Sent as the key to a base URL that needs none (a local server): the SDK insists on one. */
const NO_KEY = 'no-key';

export async function openaiProvider(o: ProviderOptions): Promise<Provider> {
  const { default: OpenAIClient } = await import('openai'); // loaded only when this provider is used
  const client: OpenAI = new OpenAIClient({
    apiKey: o.apiKey?.reveal() ?? NO_KEY,
    // Explicit, so OPENAI_BASE_URL, OPENAI_ORG_ID and OPENAI_PROJECT_ID in the environment change nothing.
    baseURL: o.baseURL ?? 'https://api.openai.com/v1',
    organization: null,
    project: null,
    maxRetries: 0, // retry.ts retries, with the session's limits
    logLevel: 'off',
  });
  return {
    kind: 'openai',
    model: o.model,
    async complete(req: CompletionRequest): Promise<Completion> {
      const tools: ChatCompletionTool[] = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema } }));
      const r = await client.chat.completions.create(
        { model: o.model, messages: [{ role: 'system', content: req.system }, ...req.turns.flatMap(toMessages)], tools, [o.tokenField]: req.maxOutputTokens },
        { signal: req.signal },
      );
      const message = r.choices?.[0]?.message;
      const calls = (message?.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, input: c.function.arguments }] : []));
      return {
        text: typeof message?.content === 'string' ? message.content : '',
        calls,
        usage: { input_tokens: r.usage?.prompt_tokens ?? 0, output_tokens: r.usage?.completion_tokens ?? 0 },
      };
    },
  };
}

function toMessages(t: Turn): ChatCompletionMessageParam[] {
  switch (t.role) {
    case 'user':
      return [{ role: 'user', content: t.text }];
    case 'assistant':
      return [
        t.calls.length === 0
          ? { role: 'assistant', content: t.text }
          : { role: 'assistant', content: t.text || null, tool_calls: t.calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: typeof c.input === 'string' ? c.input : JSON.stringify(c.input) } })) },
      ];
    case 'tool':
      return t.results.map((r) => ({ role: 'tool' as const, tool_call_id: r.id, content: r.content }));
  }
}
