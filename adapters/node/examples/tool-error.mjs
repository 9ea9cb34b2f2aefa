// The SDK's ToolError when @anthropic-ai/sdk is in reach (as in an application using its tool
// runner, which knows a ToolError by `instanceof`), else a stand-in of the same name and shape,
// which memspec's adapter also recognises.
class StandInToolError extends Error {
  constructor(content) {
    super(typeof content === 'string' ? content : content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' '));
    this.name = 'ToolError';
    this.content = content;
  }
}

export const { ToolError } = await import('@anthropic-ai/sdk/lib/tools/ToolError').catch(() => ({
  ToolError: StandInToolError,
}));
