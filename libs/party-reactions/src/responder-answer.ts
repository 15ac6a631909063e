/** How a fact is named in prose: `invoice_number` is asked for as "invoice number". */
export const factLabel = (name: string): string => name.replace(/_/g, ' ');

/**
 * A responder's answer to a question, from what it knows: each fact the question names (by its label), with its
 * value; a question that names none gets the list of what it can answer. Deterministic, so a voice may rephrase it
 * but the facts come from here.
 */
export const answerFrom = (knows: Record<string, string>, question: string): { text: string; facts: string[] } => {
  const asked = question.toLowerCase().replace(/[_\s]+/g, ' ');
  const facts = Object.keys(knows).filter((name) => asked.includes(factLabel(name).toLowerCase()));
  if (facts.length === 0) {
    const known = Object.keys(knows).map(factLabel);
    return {
      text:
        known.length === 0
          ? 'I am afraid I cannot help with that.'
          : `I am not sure what you need. I can tell you the ${known.join(', the ')}.`,
      facts,
    };
  }
  return { text: facts.map((name) => `The ${factLabel(name)} is ${knows[name]}.`).join('\n'), facts };
};
