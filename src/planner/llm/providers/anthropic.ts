/**
 * Anthropic Messages through the official `@anthropic-ai/sdk`. Tools carry `input_schema`;
 * a call is a `tool_use` block and its result a `tool_result` block, all of one turn's
 * results in one user message.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import type { Completion, CompletionRequest, Provider, ProviderOptions, Turn } from './provider.js';

export async function anthropicProvider(o: ProviderOptions): Promise<Provider> {
  const { default: AnthropicClient } = await import('@anthropic-ai/sdk'); // loaded only when this provider is used
  const client: Anthropic = new AnthropicClient({
    apiKey: o.apiKey?.reveal() ?? null,
    // Explicit, so ANTHROPIC_BASE_URL, ANTHROPIC_AUTH_TOKEN and profiles on disk change nothing.
    authToken: null,
    baseURL: o.baseURL ?? 'https://api.anthropic.com',
    maxRetries: 0, // retry.ts retries, with the session's limits
    logLevel: 'off',
  });
  return {
    kind: 'anthropic',
    model: o.model,
    async complete(req: CompletionRequest): Promise<Completion> {
      const tools: Tool[] = req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema as Tool['input_schema'] }));
      const r = await client.messages.create({ model: o.model, system: req.system, messages: req.turns.map(toMessage), tools, max_tokens: req.maxOutputTokens }, { signal: req.signal });
      let text = '';
      const calls: Completion['calls'] = [];
      for (const b of r.content ?? []) {
        if (b.type === 'text') text += b.text;
        else if (b.type === 'tool_use') calls.push({ id: b.id, name: b.name, input: b.input });
      }
      return { text, calls, usage: { input_tokens: r.usage?.input_tokens ?? 0, output_tokens: r.usage?.output_tokens ?? 0 } };
    },
  };
}

function toMessage(t: Turn): MessageParam {
  switch (t.role) {
    case 'user':
      return { role: 'user', content: t.text };
    case 'assistant': {
      const calls = t.calls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: asObject(c.input) }));
      // An empty answer cannot go back empty: the API refuses an assistant turn with no content.
      return { role: 'assistant', content: [...(t.text || calls.length === 0 ? [{ type: 'text' as const, text: t.text || '(no answer)' }] : []), ...calls] };
    }
    case 'tool':
      return { role: 'user', content: t.results.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.id, content: r.content, is_error: r.is_error })) };
  }
}

/** A tool_use block's input must be an object when it goes back: what the model sent, or {} when it was not one. */
function asObject(input: unknown): unknown {
  let v = input;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return {};
    }
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};
}
