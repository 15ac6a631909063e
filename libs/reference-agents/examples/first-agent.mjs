// A first agent of your own, for `mirror run <bundle> --agent ./first-agent.mjs`: it asks the contact its brief names
// for a quote, waits for the answer, reads it, and says it is done. It does not finish the task (no order, so no
// reward), but shows every part of the session. See ../README.md for what the session offers.

/** @param {import('../src/agent-session').AgentSession} session */
async function run(session) {
  const { goal, context } = session.brief;
  const contact = /<([^>\s]+@[^>\s]+)>/.exec(`${goal}\n${context}`)?.[1];
  if (!contact) {
    await session.finish();
    return;
  }
  // The ERP, as its REST API: the suppliers the company buys from.
  const suppliers = await session.erp('/suppliers?limit=5');
  console.error(`${session.now()}: the ERP knows ${suppliers.data.length} suppliers or more`);

  // Mail, as Microsoft Graph: send from the agent's own mailbox.
  await session.mail('/me/sendMail', {
    body: {
      message: {
        subject: 'Request for quotation',
        body: { contentType: 'text', content: `Hello,\n\nCould you send us your quote?\n\n${session.identity.name}` },
        toRecipients: [{ emailAddress: { address: contact } }],
      },
    },
  });

  // Business time passes only when the agent waits: until the next thing someone else does.
  const waited = await session.wait();
  for (const event of waited.happened) {
    console.error(`${event.at} ${event.actor}: ${event.summary}`);
  }
  const inbox = await session.mail('/me/mailFolders/inbox/messages?$top=10');
  const answer = inbox.value.find((m) => m.from.emailAddress.address.toLowerCase() === contact.toLowerCase());
  console.error(answer ? `${contact} answered: ${answer.subject}` : `${contact} has not answered yet`);

  // Slack, as its Web API: a note to the team's channel would go here (chat.postMessage).
  await session.slack('auth.test', {});

  // Done: the episode ends and is graded from what the twins recorded.
  await session.finish();
}

export default { name: 'first-agent', run };
